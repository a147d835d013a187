import pytest

from minishop.events import STOP, EventBus, EventCollector, emits


def test_handlers_run_by_priority_then_subscription_order():
    bus = EventBus()
    calls = []
    bus.subscribe("x", lambda e: calls.append("low") or "low", priority=-1)
    bus.subscribe("x", lambda e: calls.append("a") or "a")
    bus.subscribe("x", lambda e: calls.append("high") or "high", priority=5)
    bus.subscribe("x", lambda e: calls.append("b") or "b")
    assert bus.publish("x") == ["high", "a", "b", "low"]
    assert calls == ["high", "a", "b", "low"]


def test_wildcard_handlers_receive_everything():
    bus = EventBus()
    everything = bus.subscribe("*", EventCollector())
    only_y = bus.subscribe("y", EventCollector())
    bus.publish("x")
    bus.publish("y")
    bus.publish("*")
    assert everything.seen == ["x", "y", "*"]
    assert only_y.seen == ["y"]


def test_wildcard_is_not_called_twice_for_wildcard_event():
    bus = EventBus()
    collector = bus.subscribe("*", EventCollector())
    assert bus.publish("*") == [1]


def test_stop_prevents_lower_priority_handlers():
    bus = EventBus()
    later = EventCollector()
    bus.subscribe("x", lambda e: "first", priority=3)
    bus.subscribe("x", lambda e: STOP, priority=2)
    bus.subscribe("x", later, priority=1)
    assert bus.publish("x") == ["first"]
    assert later.seen == []


def test_on_decorator_registers_and_returns_function():
    bus = EventBus()

    @bus.on("order.paid", priority=2)
    def handler(event):
        return event["amount"] * 2

    assert handler(type("E", (), {"__getitem__": lambda self, k: 4})()) == 8
    assert bus.publish("order.paid", amount=21) == [42]
    assert bus.handlers_for("order.paid") == [handler]


def test_unsubscribe():
    bus = EventBus()
    first = bus.subscribe("x", EventCollector())
    second = bus.subscribe("x", EventCollector())
    assert bus.unsubscribe("x", first) is True
    assert bus.unsubscribe("x", first) is False
    assert bus.handlers_for("x") == [second]
    assert bus.unsubscribe("x", second) is True
    assert bus.names() == []
    assert bus.unsubscribe("missing", second) is False


def test_subscribe_requires_callable():
    with pytest.raises(TypeError):
        EventBus().subscribe("x", 42)


def test_event_payload_and_sequence():
    bus = EventBus()
    collector = bus.subscribe("sale", EventCollector("amount"))
    bus.publish("sale", amount=10)
    bus.publish("sale")
    assert collector.seen == [10, None]
    assert [e.sequence for e in bus.history] == [1, 2]
    assert bus.history[0]["amount"] == 10
    assert bus.history[1].get("amount", "n/a") == "n/a"
    assert repr(bus.history[0]) == "Event('sale', #1)"


def test_history_is_bounded():
    bus = EventBus(history_limit=3)
    for n in range(5):
        bus.publish("tick", n=n)
    assert [e["n"] for e in bus.history] == [2, 3, 4]
    assert [e.sequence for e in bus.history] == [3, 4, 5]


def test_history_disabled():
    bus = EventBus(history_limit=0)
    bus.publish("tick")
    assert bus.history == []
    with pytest.raises(ValueError):
        EventBus(history_limit=-1)


def test_names_and_count_and_clear():
    bus = EventBus()
    for name in ["order.paid", "order.shipped", "stock.reserved"]:
        bus.subscribe(name, EventCollector())
    assert bus.names() == ["order.paid", "order.shipped", "stock.reserved"]
    assert bus.names("order.") == ["order.paid", "order.shipped"]
    bus.publish("order.paid")
    bus.publish("order.paid")
    bus.publish("stock.reserved")
    assert bus.count("order.paid") == 2
    assert bus.count("stock.reserved") == 1
    assert bus.count("order.shipped") == 0
    bus.clear()
    assert bus.names() == []
    assert bus.history == []


def test_emits_decorator_publishes_result():
    class Thing:
        def __init__(self, bus):
            self.bus = bus

        @emits("thing.done")
        def work(self, n):
            """Do work."""
            return n + 1

    bus = EventBus()
    results = bus.subscribe("thing.done", EventCollector("result"))
    thing = Thing(bus)
    assert thing.work(1) == 2
    assert thing.work(5) == 6
    assert results.seen == [2, 6]
    assert bus.history[0]["source"] is thing
    assert Thing.work.event_name == "thing.done"
    assert Thing.work.__doc__ == "Do work."
    assert Thing(None).work(1) == 2


@pytest.mark.parametrize(
    "subscribed, remove, removed, remaining",
    [
        (["a", "b", "c"], "b", True, ["a", "c"]),
        (["a"], "a", True, []),
        (["a", "b"], "z", False, ["a", "b"]),
        ([], "a", False, []),
        (["a", "b", "a"], "a", True, ["b"]),
    ],
)
def test_unsubscribe_cases(subscribed, remove, removed, remaining):
    bus = EventBus()
    handlers = {}
    for name in subscribed:
        handler = handlers.setdefault(name, EventCollector(name))
        bus.subscribe("evt", handler)
    target = handlers.get(remove, EventCollector())
    assert bus.unsubscribe("evt", target) is removed
    assert [h.key for h in bus.handlers_for("evt")] == remaining
    assert bus.names() == (["evt"] if remaining else [])


@pytest.mark.parametrize(
    "priorities, expected",
    [
        ([0, 1, 2], [2, 1, 0]),
        ([5, -5, 0], [0, 2, 1]),
        ([1, 1, 2], [2, 0, 1]),
        ([-1, -2, -3], [0, 1, 2]),
        ([3, 10, 3, 10], [1, 3, 0, 2]),
    ],
)
def test_priority_ordering(priorities, expected):
    bus = EventBus()
    for index, priority in enumerate(priorities):
        bus.subscribe("e", (lambda i: lambda event: i)(index), priority=priority)
    assert bus.publish("e") == expected


@pytest.mark.parametrize(
    "name, expected",
    [("a", ["a", "star"]), ("b", ["star"]), ("*", ["star"]), ("a.b", ["star"]), ("", ["star"])],
)
def test_wildcard_handlers_are_appended_once(name, expected):
    bus = EventBus()
    bus.subscribe("a", lambda e: "a")
    bus.subscribe("*", lambda e: "star")
    assert bus.publish(name) == expected
    assert len(bus.handlers_for(name)) == len(expected)


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8])
def test_event_sequence_numbers(count):
    bus = EventBus()
    for _ in range(count):
        bus.publish("tick")
    assert [e.sequence for e in bus.history] == list(range(1, count + 1))
    assert bus.count("tick") == count
