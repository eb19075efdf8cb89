-- Release a lock only if we still hold it (our token): a lock that ran out and was
-- taken by someone else is theirs.
-- KEYS[1] the lock; ARGV[1] our token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
