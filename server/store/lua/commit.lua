-- Store one accepted change of a room, then publish it: the fencing check, the version
-- check and the write are one atomic step, so a former owner can never overwrite newer
-- state, and nobody hears of a change Redis did not keep.
-- KEYS: room, events, lease
-- ARGV: "<node> <fence>", version read, snapshot, events ('' for none), stream maxlen (0: no trim),
--       chips granted (bots), channel, message header, answers
-- -> {1, version} | {0, 'fence', holder, version} | {0, 'version', version}
local holder = redis.call('GET', KEYS[3])
local cur = redis.call('HGET', KEYS[1], 'version') or '0'
if holder ~= ARGV[1] then return {0, 'fence', holder or '', cur} end
if cur ~= ARGV[2] then return {0, 'version', cur} end
local v = tonumber(cur) + 1
redis.call('HSET', KEYS[1], 'snap', ARGV[3], 'version', v)
if ARGV[6] ~= '0' then redis.call('HINCRBY', KEYS[1], 'granted', ARGV[6]) end
if ARGV[4] ~= '' then
  if ARGV[5] == '0' then  -- a stream kept whole (a league match's room: its results are read from it)
    redis.call('XADD', KEYS[2], '*', 'v', v, 'e', ARGV[4])
  else
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'v', v, 'e', ARGV[4])
  end
end
redis.call('PUBLISH', ARGV[7], ARGV[8] .. ARGV[3] .. ARGV[4] .. ARGV[9])
return {1, v}
