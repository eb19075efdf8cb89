-- Give up a lease that is still ours. KEYS: lease. ARGV: "<node> <fence>".
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
