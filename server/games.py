"""The games this server hosts: ``{name: GAME}`` from the engine packages."""

from __future__ import annotations

from engine.doudizhu import GAME as DOUDIZHU
from engine.game import Game
from engine.holdem import GAME as HOLDEM
from engine.zhajinhua import GAME as ZHAJINHUA

GAMES: dict[str, Game] = {g.name: g for g in (HOLDEM, ZHAJINHUA, DOUDIZHU)}
