-- Extends (or only checks) many shares in one round trip: a holder's entry in a shared key's holders is
-- compared and extended, the key's marker then lives as long as its longest-lived holder (see share.lua).
-- KEYS[2i-1]: a lock key; KEYS[2i]: its holders (a sorted set, same cluster slot)
-- ARGV[1]: the new lease in milliseconds; 0 checks without extending
-- ARGV[i + 1]: the holder's entry, '<token>:<fence>'
-- Returns an array with, per holder, 1 when the key is still shared and the holder's lease had not run out (then
-- extended), and 0 otherwise; such a key is left untouched (never recreated, never extended).
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(ARGV[1])
local held = {}
for i = 1, #KEYS / 2 do
    local key, holders, holder = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
    local marker = redis.pcall('GET', key)
    local shared = type(marker) == 'string' and string.match(marker, '^~[rs]%d*:%d+$')
    local expires = shared and tonumber(redis.call('ZSCORE', holders, holder))
    if expires and expires > now then
        held[i] = 1
        if lease > 0 then
            redis.call('ZADD', holders, 'XX', now + lease, holder)
            local longest = tonumber(redis.call('ZRANGE', holders, -1, -1, 'WITHSCORES')[2])
            local ttl = math.max(1, math.floor(longest - now))
            redis.call('PEXPIRE', key, ttl)
            redis.call('PEXPIRE', holders, ttl)
        end
    else
        held[i] = 0
    end
end
return held
