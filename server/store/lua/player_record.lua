-- A player's record and last results, read in one step (server/record.py).
-- KEYS: record, index, results (as record_hand.lua). ARGV: how many results, newest first.
-- -> {flat record hash, {JSON, ms, JSON, ms, ...}}
local ids = redis.call('ZREVRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #ids, 2 do
  local entry = redis.call('HGET', KEYS[3], ids[i])
  if entry then
    out[#out + 1] = entry
    out[#out + 1] = ids[i + 1]
  end
end
return {redis.call('HGETALL', KEYS[1]), out}
