"""The edge: what a connection speaks and how it is kept.

The transport (``websockets``: frames, limits, Origin, the static files and /healthz,
/metrics), the codec and the typed messages of the protocol, the gate (addresses, Origin,
connection limits), backpressure, sessions (hello/resume, tokens, rate limits, each
connection's send queue)."""
