-- Create a room owned by the creating node (fence 1).
-- KEYS: room, events, lease
-- ARGV: node, lease ms, snapshot, game, events ('' for none), stream maxlen, granted
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'snap', ARGV[3], 'snapv', 1, 'version', 1, 'game', ARGV[4],
           'fence', 1, 'owner', ARGV[1], 'granted', ARGV[7])
if ARGV[5] ~= '' then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', 'v', 1, 'e', ARGV[5])
end
redis.call('SET', KEYS[3], ARGV[1] .. ' 1', 'PX', ARGV[2])
return 1
