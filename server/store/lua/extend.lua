-- Extend a lock only if we still hold it (our token): False once it ran out and someone
-- else took it.
-- KEYS[1] the lock; ARGV[1] our token; ARGV[2] its new time to live (ms)
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
