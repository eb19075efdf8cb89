"""``cardroom loadtest``: servers under rooms played flat out by bot clients over the wire.

    cardroom loadtest --game holdem --rooms 20 --seconds 30 --baseline-echo
    cardroom loadtest --servers 2 --game doudizhu --rooms 20 --json figures.json
    cardroom loadtest --idle-connections 5000 --seconds 10
    cardroom loadtest --url ws://127.0.0.1:8765/ws --rooms 50 --think-ms 200

It only speaks the wire protocol (``websockets`` + ``msgpack``, subprotocol
``cardroom.msgpack``) and takes its players' decisions from ``engine.bots``. Modules:

``conn``      the lean client connection (reader task, replies by ``ref``)
``players``   a seat's player, the action-to-broadcast clock, opening a room
``launcher``  the local server(s), their Redis and the echo server, as child processes
``echo``      the echo server itself (``python -m client_demo.tools.loadtest.echo``)
``figures``   percentiles, ``/metrics`` parsing, ``/proc`` readings
``probe``     CPU and memory of the servers under test, local or remote
``runner``    the play, idle and echo phases
``report``    the final table, the JSON file, the exit status
``cli``       the command line
"""

from .cli import add_command, loadtest_command

__all__ = ["add_command", "loadtest_command"]
