"""Exact, executable derivations of transformer model sizes: ``derivations.count``, ``derivations.flop_count``,
``derivations.memory_use`` and ``derivations.fit`` (:mod:`derivations.api`), the command line (``python -m derivations``, or ``derivations``
once installed), and the derivations themselves (``derivations.families``)."""

# Not "flops" and "memory": those are the modules that derive them (derivations.flops, derivations.memory); "fit"
# is no module (derivations.fits searches).
__all__ = ["count", "flop_count", "memory_use", "fit"]


def __getattr__(name: str):
    # The API imports SymPy: loaded when asked for, so that the command line, which imports this package,
    # answers without it.
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'derivations' has no attribute {name!r}")


def __dir__() -> list[str]:
    # The API's names are loaded when asked for (above): dir() lists them all the same.
    return sorted({*globals(), *__all__})
