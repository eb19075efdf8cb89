-- A player's result of one finished hand, recorded once (server/record.py).
-- KEYS: record (hash "<game>:hands", "<game>:net"), index (sorted set: result id -> ms),
-- results (hash: result id -> JSON). ARGV: id ("<room> <hand>"), ms, game, net, JSON, kept.
-- -> 1 (recorded now) | 0 (recorded before)
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[5])
redis.call('HINCRBY', KEYS[1], ARGV[3] .. ':hands', 1)
redis.call('HINCRBY', KEYS[1], ARGV[3] .. ':net', ARGV[4])
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[6])
if extra > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, extra - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
  redis.call('HDEL', KEYS[3], unpack(old))
end
return 1
