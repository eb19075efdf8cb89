-- Mark a player connected at a node until an expiry (ARGV[2] > 0), or not (0); return
-- whether the player is connected anywhere. KEYS: presence. ARGV: node, expiry ms, now ms.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if tonumber(ARGV[2]) > 0 then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], last[2]) end
return redis.call('ZCARD', KEYS[1])
