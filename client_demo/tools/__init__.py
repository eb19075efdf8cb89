"""Commands built on the SDK, reached by the command line as entry points of the group
``cardroom.commands`` (``pyproject.toml``): ``cardroom bots`` and ``cardroom simulate``
(:mod:`client_demo.tools.bots_cli`), ``cardroom loadtest`` (:mod:`client_demo.tools.loadtest`)."""
