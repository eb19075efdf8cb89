-- Store one accepted change of a room, then publish it: the fencing check, the version
-- check and the write are one atomic step, so a former owner can never overwrite newer
-- state, and nobody hears of a change Redis did not keep.
--
-- A change is stored as its record (how to make it again from the table before it) in
-- the room's stream, and, every so often, as a full snapshot too: recovery loads the
-- snapshot (``snap``, of version ``snapv``) and replays the records after it.
-- KEYS: room, events, lease
-- ARGV: "<node> <fence>", version read, snapshot ('' for none), events ('' for none),
--       stream maxlen (0: no trim), chips granted (bots), channel ('' for none), message header, answers,
--       record
-- -> {1, version} | {0, 'fence', holder, version} | {0, 'version', version}
local holder = redis.call('GET', KEYS[3])
local cur = redis.call('HGET', KEYS[1], 'version') or '0'
if holder ~= ARGV[1] then return {0, 'fence', holder or '', cur} end
if cur ~= ARGV[2] then return {0, 'version', cur} end
local v = tonumber(cur) + 1
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'snap', ARGV[3], 'snapv', v, 'version', v)
else
  -- a room written before records had a snapshot at every version: the one there is cur's
  redis.call('HSETNX', KEYS[1], 'snapv', cur)
  redis.call('HSET', KEYS[1], 'version', v)
end
if ARGV[6] ~= '0' then redis.call('HINCRBY', KEYS[1], 'granted', ARGV[6]) end
local entry = {'v', v, 'c', ARGV[10]}
if ARGV[4] ~= '' then entry[5] = 'e'; entry[6] = ARGV[4] end
if ARGV[5] == '0' then  -- a stream kept whole (a league match's room: its results are read from it)
  redis.call('XADD', KEYS[2], '*', unpack(entry))
else
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', unpack(entry))
end
-- no channel: the caller publishes once the replicas hold the change (WAIT)
if ARGV[7] ~= '' then redis.call('PUBLISH', ARGV[7], ARGV[8] .. ARGV[3] .. ARGV[4] .. ARGV[9] .. ARGV[10]) end
return {1, v}
