-- A room's last snapshot and the records of the changes after it (see commit.lua), read
-- in one step; with ``after``, the records after that version if it is older than the
-- snapshot by at most 256 (a follower that missed a few changes). Shared by acquire.lua, which runs it after taking the lease.
-- -> {snapshot, version, snapshot's version, {version, record, version, record, ...}}
local function room_log(room, events, after)
  local h = redis.call('HMGET', room, 'snap', 'version', 'snapv')
  local version = tonumber(h[2] or '0')
  local snapv = tonumber(h[3] or h[2] or '0')  -- no snapv: written before records, snapshot current
  local since = snapv
  if after and after < since and since - after <= 256 then since = after end
  local log = {}
  if version > since then
    local entries = redis.call('XREVRANGE', events, '+', '-', 'COUNT', version - since)
    for i = #entries, 1, -1 do
      local f = entries[i][2]
      local v, c
      for j = 1, #f, 2 do
        if f[j] == 'v' then v = f[j + 1] elseif f[j] == 'c' then c = f[j + 1] end
      end
      if v and tonumber(v) > since then
        log[#log + 1] = v
        log[#log + 1] = c or ''
      end
    end
  end
  return {h[1] or false, version, snapv, log}
end
