"""The model families: one module each, composed from :mod:`derivations.components`.

A module here is a family with a page of its own (``docs/<module>.md``): it lays out every class transformers
defines for it, names its bundled checkpoints and reconciles the figures published about it, and declares all of
that in one record, ``FAMILY`` (:class:`derivations.contract.Family`), which :mod:`derivations.registry` collects.
Pages name its contents in the short form ``bert.layer`` (see :mod:`derivations.site.references`). A helper module
shared by families, and no family itself, is named with a leading underscore.
"""
