-- A buy-in the room never stored: give the chips back, once.
-- KEYS: player, journal. ARGV: transfer id. -> wallet, or -1 if the entry was gone.
local e = redis.call('HGET', KEYS[2], ARGV[1])
if not e then return -1 end
local amount = string.match(e, '^[^|]*|(%d+)|')
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('HINCRBY', KEYS[1], 'wallet', amount)
