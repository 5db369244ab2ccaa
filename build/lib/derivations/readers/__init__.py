"""One reader per model_type: config.json to symbol values and layout, with transformers' defaults.

Plain Python (no SymPy). Each module defines ``READER``, a :class:`~derivations.reading.Reader`;
``derivations.configs.READERS`` finds them.
"""
