-- Extend a lease that is still ours, and say which version of the room Redis holds (an
-- owner that acknowledged a later one finds that Redis lost writes: a restart on a cut
-- file, a failover to a replica behind; -1 for a room that is gone, as a closed room's
-- data goes once it has been kept long enough). KEYS: lease, room.
-- ARGV: "<node> <fence>", lease ms.
-- -> {1, version or -1} (renewed) | {0} (another node holds it) | {-1} (nobody does: it
-- expired, or Redis lost it)
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, tonumber(redis.call('HGET', KEYS[2], 'version') or '-1')}
end
if not cur then return {-1} end
return {0}
