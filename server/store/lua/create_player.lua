-- A new player with the grant in the wallet. KEYS: player. ARGV: name, grant.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'wallet', ARGV[2], 'granted', ARGV[2])
return 1
