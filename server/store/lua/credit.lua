-- Second step of a cash-out the room has stored: pay the wallet, once, and drop the
-- room from the player's seats. KEYS: player, credited, rooms. ARGV: id, amount, room.
-- -> {1, wallet} (paid now) | {0, wallet} (paid before)
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then
  return {0, tonumber(redis.call('HGET', KEYS[1], 'wallet') or '0')}
end
local w = redis.call('HINCRBY', KEYS[1], 'wallet', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[3])
return {1, w}
