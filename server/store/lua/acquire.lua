-- Take a room's lease unless another node holds it. A node may take its own lease
-- again (after it dropped the room); every acquisition gets a new, larger fence.
-- KEYS: room, lease, events
-- ARGV: node, lease ms
-- -> {1, fence, previous owner, room log (see room_log.lua)} | {0, holder} | {-1} (no such room)
local cur = redis.call('GET', KEYS[2])
if cur and string.sub(cur, 1, #ARGV[1] + 1) ~= ARGV[1] .. ' ' then return {0, cur} end
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local fence = redis.call('HINCRBY', KEYS[1], 'fence', 1)
local previous = redis.call('HGET', KEYS[1], 'owner') or ''
redis.call('HSET', KEYS[1], 'owner', ARGV[1])
redis.call('SET', KEYS[2], ARGV[1] .. ' ' .. fence, 'PX', ARGV[2])
return {1, fence, previous, room_log(KEYS[1], KEYS[3])}
