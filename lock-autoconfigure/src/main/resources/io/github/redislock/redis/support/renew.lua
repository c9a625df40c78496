-- Extends many leases in one round trip (compare-and-extend: only keys that still hold our token).
-- KEYS[i]: a lock key
-- ARGV[1]: the new lease in milliseconds
-- ARGV[i + 1]: the token we stored under KEYS[i]
-- Returns an array with, per key, 1 when extended and 0 when the key is gone or holds another token;
-- such a key is left untouched (never recreated, never extended).
local extended = {}
for i = 1, #KEYS do
    if redis.call('GET', KEYS[i]) == ARGV[i + 1] then
        redis.call('PEXPIRE', KEYS[i], ARGV[1])
        extended[i] = 1
    else
        extended[i] = 0
    end
end
return extended
