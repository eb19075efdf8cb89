"""Many processes on one Redis: each process is a node (:mod:`.node`: its inbox,
pub/sub, lease renewals and scans) with a directory of the rooms it owns and the routing
of requests to whichever node owns a room (:mod:`.directory`)."""
