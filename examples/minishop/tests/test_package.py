import minishop
from minishop import money


def test_version():
    assert minishop.__version__ == "0.1.0"


def test_public_names_are_exported():
    for name in minishop.__all__:
        assert hasattr(minishop, name), name
    assert len(minishop.__all__) == len(set(minishop.__all__))


def test_total_alias_is_sum_money():
    assert minishop.total is money.sum_money
    assert minishop.total([minishop.Money("0.10"), minishop.Money("0.20")]) == minishop.Money("0.30")
