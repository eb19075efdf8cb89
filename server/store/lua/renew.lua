-- Extend a lease that is still ours. KEYS: lease. ARGV: "<node> <fence>", lease ms.
-- -> 1 (renewed) | 0 (another node holds it) | -1 (nobody does: it expired, or Redis lost it)
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not cur then return -1 end
return 0
