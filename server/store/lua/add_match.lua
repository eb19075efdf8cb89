-- Append a league's match record, once: a record whose id is there already is left out
-- (a runner that records a match again after a crash).
-- KEYS[1] the records (list), KEYS[2] their ids (set); ARGV[1] the id, ARGV[2] the record
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  redis.call('RPUSH', KEYS[1], ARGV[2])
  return 1
end
return 0
