-- Takes a lock and issues its fencing token, in one step.
-- KEYS[1]: the lock key
-- KEYS[2]: the lock's fencing counter (same cluster slot as KEYS[1])
-- ARGV[1]: the caller's token (fresh and random per acquisition)
-- ARGV[2]: the lease in milliseconds
-- Returns {1, fence} when the lock is now ours. A replay of the same call (lost reply, client reconnect)
-- finds our own token and returns {1, fence} again without counting twice.
-- Returns {0, pttl} when someone else holds it: the milliseconds until it expires on its own.
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
    return {1, tonumber(redis.call('GET', KEYS[2]) or '0')}
end
if current then
    return {0, redis.call('PTTL', KEYS[1])}
end
-- The fence is max(last + 1, Redis time in microseconds). The time floor keeps it increasing even when the
-- counter key has expired or been evicted, so the counter lives only as long as the lease, not forever.
local fence = tonumber(redis.call('GET', KEYS[2]) or '0') + 1
local now = redis.call('TIME')
local floor = tonumber(now[1]) * 1000000 + tonumber(now[2])
if fence < floor then
    fence = floor
end
-- %d keeps all digits (a plain tostring would switch to exponent notation at this size).
redis.call('SET', KEYS[2], string.format('%d', fence), 'PX', ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, fence}
