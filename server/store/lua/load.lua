-- KEYS: room, events; ARGV: [the version after which to read the records] -> see room_log.lua
return room_log(KEYS[1], KEYS[2], tonumber(ARGV[1]))
