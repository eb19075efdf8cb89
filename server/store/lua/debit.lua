-- First step of a buy-in: take the chips from the wallet and write the journal entry,
-- together. Idempotent: the same id twice takes the chips once. A player an operator
-- banned buys in no more (checked here, with the chips: a join already on its way when
-- the ban came seats nobody).
-- KEYS: player, journal. ARGV: transfer id, amount, entry "room|amount|ms".
-- -> {1, wallet} | {0, wallet} (not enough chips) | {-1, wallet} (banned)
local w = tonumber(redis.call('HGET', KEYS[1], 'wallet') or '0')
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {1, w} end
if redis.call('HEXISTS', KEYS[1], 'banned') == 1 then return {-1, w} end
if w < tonumber(ARGV[2]) then return {0, w} end
w = redis.call('HINCRBY', KEYS[1], 'wallet', -tonumber(ARGV[2]))
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return {1, w}
