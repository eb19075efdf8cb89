-- An operator's credit (amount > 0) or debit (amount < 0) of a wallet, counted as a grant
-- (granted moves with the wallet, so grants = wallets + tables + pending still holds).
-- KEYS: player. ARGV: amount. -> {1, wallet} | {0, 'no_such_player'} | {0, 'insufficient_funds', wallet}
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 'no_such_player'} end
local amount = tonumber(ARGV[1])
local wallet = tonumber(redis.call('HGET', KEYS[1], 'wallet') or '0')
if wallet + amount < 0 then return {0, 'insufficient_funds', wallet} end
redis.call('HINCRBY', KEYS[1], 'granted', amount)
return {1, redis.call('HINCRBY', KEYS[1], 'wallet', amount)}
