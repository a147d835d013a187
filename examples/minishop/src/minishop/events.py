"""A tiny synchronous event bus.

Handlers subscribe to an event name (or ``"*"`` for everything) and are
called in descending priority order; equal priorities run in subscription
order.  A handler may return :data:`STOP` to prevent lower-priority handlers
from running.
"""

import functools

STOP = object()
WILDCARD = "*"


class Event:
    """A published event: a name plus a dict of keyword payload."""

    __slots__ = ("name", "payload", "sequence")

    def __init__(self, name, payload, sequence):
        self.name = name
        self.payload = dict(payload)
        self.sequence = sequence

    def __getitem__(self, key):
        return self.payload[key]

    def get(self, key, default=None):
        return self.payload.get(key, default)

    def __repr__(self):
        return "Event(%r, #%d)" % (self.name, self.sequence)


class EventBus:
    """Registry of handlers plus a bounded history of published events."""

    def __init__(self, history_limit=100):
        if history_limit < 0:
            raise ValueError("history_limit must be non-negative")
        self._handlers = {}
        self._order = 0
        self._sequence = 0
        self.history_limit = history_limit
        self.history = []

    def subscribe(self, name, handler, priority=0):
        """Register ``handler`` for ``name`` and return it unchanged."""
        if not callable(handler):
            raise TypeError("handler must be callable")
        self._order += 1
        self._handlers.setdefault(name, []).append((priority, self._order, handler))
        return handler

    def unsubscribe(self, name, handler):
        """Remove ``handler`` from ``name``; returns ``True`` if it was found."""
        entries = self._handlers.get(name, [])
        kept = [entry for entry in entries if entry[2] is not handler]
        if len(kept) == len(entries):
            return False
        if kept:
            self._handlers[name] = kept
        else:
            del self._handlers[name]
        return True

    def on(self, name, priority=0):
        """Decorator form of :meth:`subscribe`."""

        def decorator(func):
            return self.subscribe(name, func, priority)

        return decorator

    def handlers_for(self, name):
        """Handlers that would receive ``name``, in call order."""
        entries = list(self._handlers.get(name, []))
        if name != WILDCARD:
            entries.extend(self._handlers.get(WILDCARD, []))
        entries.sort(key=lambda entry: (-entry[0], entry[1]))
        return [entry[2] for entry in entries]

    def publish(self, name, **payload):
        """Deliver an event and return the list of handler results."""
        self._sequence += 1
        event = Event(name, payload, self._sequence)
        self._remember(event)
        results = []
        for handler in self.handlers_for(name):
            result = handler(event)
            if result is STOP:
                break
            results.append(result)
        return results

    def _remember(self, event):
        if self.history_limit == 0:
            return
        self.history.append(event)
        overflow = len(self.history) - self.history_limit
        if overflow > 0:
            del self.history[:overflow]

    def names(self, prefix=""):
        """Sorted event names with at least one handler, filtered by prefix."""
        return sorted(name for name in self._handlers if name.startswith(prefix))

    def count(self, name):
        """How many events called ``name`` are in the history."""
        return sum(1 for event in self.history if event.name == name)

    def clear(self):
        """Forget all handlers and history."""
        self._handlers.clear()
        self.history = []


def emits(event_name, bus_attribute="bus"):
    """Method decorator: publish ``event_name`` after a successful call.

    The instance's ``bus_attribute`` names the bus to use; when it is ``None``
    nothing is published.  The payload contains the method's return value as
    ``result`` and the instance as ``source``.
    """

    def decorator(method):
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            result = method(self, *args, **kwargs)
            bus = getattr(self, bus_attribute, None)
            if bus is not None:
                bus.publish(event_name, source=self, result=result)
            return result

        wrapper.event_name = event_name
        return wrapper

    return decorator


class EventCollector:
    """Handler object that records payload values for one key."""

    def __init__(self, key=None):
        self.key = key
        self.seen = []

    def __call__(self, event):
        self.seen.append(event.name if self.key is None else event.get(self.key))
        return len(self.seen)
