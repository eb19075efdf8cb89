-- Put back the state an owner acknowledged after Redis lost it (a failover to a replica
-- that had not received the last writes). Only the lease holder may, and only forward.
-- The state is written as a snapshot: the records Redis lost are not needed after it.
-- KEYS: room, lease
-- ARGV: "<node> <fence>", version, snapshot, channel, message header
-- -> {1} | {0, version in Redis}
local cur = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if redis.call('GET', KEYS[2]) ~= ARGV[1] or cur >= tonumber(ARGV[2]) then return {0, cur} end
redis.call('HSET', KEYS[1], 'snap', ARGV[3], 'snapv', ARGV[2], 'version', ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[5] .. ARGV[3])
return {1}
