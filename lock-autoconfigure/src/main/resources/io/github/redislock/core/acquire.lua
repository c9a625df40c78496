-- Takes a lock and issues its fencing token in one step; when the lock is taken, queues this client for it.
-- KEYS[1]: the lock key. Its value is '<owner>:<fence>': a holder's random token or the id of the client a
--          release handed the lock to, then the fencing token; '~:<fence>' marks a released lock, kept for
--          one lease so that the next fence counts on from it.
-- KEYS[2]: the waiting clients of the key, in turn order (a list of client ids; same cluster slot)
-- KEYS[3]: per waiting client '<expires at, ms>:<lease ms>' (a hash; same cluster slot)
-- ARGV[1]: the caller's token (fresh and random per acquisition)
-- ARGV[2]: the lease in milliseconds
-- ARGV[3]: the calling client's id (absent: the caller does not wait, so it neither queues nor takes hand-offs)
-- ARGV[4]: how long the client's queue entry stays valid without being refreshed, in ms
-- Returns {1, fence}: the lock is now ours under '<token>:<fence>'. A replay of the same call (lost reply,
--                     client reconnect) finds our own token and returns {1, fence} again without counting twice.
--         {2, fence}: a release handed the lock to this client: it is held under '<client id>:<fence>'.
--         {0, pttl}:  someone else holds it, for pttl more milliseconds unless renewed.
local current = redis.call('GET', KEYS[1])
local last = 0
if current then
    local colon = string.find(current, ':', 1, true)
    local owner = colon and string.sub(current, 1, colon - 1)
    if owner == ARGV[1] then
        return {1, tonumber(string.sub(current, colon + 1))}
    end
    if ARGV[3] and owner == ARGV[3] then
        return {2, tonumber(string.sub(current, colon + 1))}
    end
    if owner ~= '~' then
        if ARGV[4] then
            local now = redis.call('TIME')
            local expires = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[4])
            redis.call('HSET', KEYS[3], ARGV[3], string.format('%d', expires) .. ':' .. ARGV[2])
            if not redis.call('LPOS', KEYS[2], ARGV[3]) then
                redis.call('RPUSH', KEYS[2], ARGV[3])
            end
            redis.call('PEXPIRE', KEYS[2], ARGV[4])
            redis.call('PEXPIRE', KEYS[3], ARGV[4])
        end
        return {0, redis.call('PTTL', KEYS[1])}
    end
    last = tonumber(string.sub(current, colon + 1))
end
-- The fence is max(last + 1, Redis time in microseconds). The time floor keeps it increasing when the
-- released marker has expired or been evicted, so nothing about a lock outlives its lease.
local now = redis.call('TIME')
local fence = tonumber(now[1]) * 1000000 + tonumber(now[2])
if fence <= last then
    fence = last + 1
end
-- %d keeps all digits (a plain tostring would switch to exponent notation at this size).
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. string.format('%d', fence), 'PX', ARGV[2])
return {1, fence}
