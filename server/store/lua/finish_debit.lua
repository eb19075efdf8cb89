-- Last step of a buy-in the room has stored: close the journal entry and list the room
-- among the player's seats. KEYS: journal, rooms. ARGV: transfer id, room.
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
return 1
