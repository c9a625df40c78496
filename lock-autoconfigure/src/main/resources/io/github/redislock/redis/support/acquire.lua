-- Takes a lock and issues its fencing token in one step; takes over a lock a release handed to this
-- application; when the lock is someone else's, queues this application for it.
-- KEYS[1]: the lock key. Its value is '<owner>:<fence>': the holding acquisition's random token, or the id
--          of the application a release handed the lock to (until one of its threads takes it over here).
-- KEYS[2]: the applications waiting for the key, in turn order (a list of client ids; same cluster slot)
-- KEYS[3]: per waiting application '<expires at, ms>:<lease ms>:<PUBLISH or SPUBLISH>:<channel>': until when the
--          entry is valid, the lease it asks for, and how to tell the application that the lock is its own
--          (a hash; same cluster slot)
-- ARGV[1]: the caller's token (new for every acquisition, never reused)
-- ARGV[2]: the lease in milliseconds
-- ARGV[3]: the calling application's id (absent: the caller does not wait, so it neither queues nor takes
--          over hand-offs)
-- ARGV[4]: how long the application's queue entry stays valid without being refreshed, in ms
-- ARGV[5]: how the application hears hand-offs: '<PUBLISH or SPUBLISH>:<channel>'
-- KEYS[4]: optional (Redlock, whose nodes are never a cluster): the lock's fencing counter on this node, raised
--          once the key is taken, in the same step: to one more than it was, or, when it has none (or a value that
--          is not a count: another client wrote it), to this node's clock in whole seconds, counted in microseconds
--          (the nodes of one take then agree unless a second began between them). The raised value is returned as
--          a third element of {1, ...} and {2, ...}. Raising here rather than by a command of its own means that
--          when every node of a majority returns the same value, that value already stands on a majority: the
--          fencing token, with no second round (RedlockAttempt).
-- ARGV[6]: with KEYS[4], how long the raised counter lasts, in ms; ARGV[3] to ARGV[5] are then '' when the caller
--          does not wait
-- Returns {1, fence}: the lock is now ours under '<token>:<fence>'. A replay of the same call (lost reply,
--                     client reconnect) finds our own token and returns {1, fence} again without counting twice.
--         {2, fence}: the lock had been handed to this application; it is now ours under '<token>:<fence>'
--                     with a lease counted from now. Only one caller can take a hand-off over: the value
--                     no longer names the application afterwards.
--         {0, pttl}:  someone else holds it, for pttl more milliseconds unless renewed; {0, pttl, 1}: readers do.
--         {3, N}:     the key is a semaphore of N permits (share.lua's marker '~s<N>:<fence>'), which never shares
--                     a key with a write lock: nothing queued. (Readers' marker '~r:<fence>' is held by someone
--                     else: a writer queues, and share.lua hands the key on once the last reader is gone.)
-- The application id of a caller that waits ('' is none: see ARGV[6]).
local waiter = ARGV[3]
if waiter == '' then
    waiter = nil
end
local time = redis.call('TIME')
-- A counter as read back: a count below 2^53 (exact in Lua's numbers), else none.
local function count(stored)
    if stored and #stored <= 16 and string.match(stored, '^%d+$') then
        local n = tonumber(stored)
        if n < 9007199254740992 then
            return n
        end
    end
    return nil
end
-- The reply of a take: the status and fence, and KEYS[4]'s counter, raised, when asked for.
local function taken(status, fence)
    if KEYS[4] then
        local counter = count(redis.call('GET', KEYS[4]))
        local raised = counter and counter + 1 or tonumber(time[1]) * 1000000
        raised = string.format('%d', raised)
        redis.call('SET', KEYS[4], raised, 'PX', ARGV[6])
        return {status, fence, raised}
    end
    return {status, fence}
end
-- Free (the common case, tried first): the fence is Redis time in microseconds.
local fence = tonumber(time[1]) * 1000000 + tonumber(time[2])
-- %d keeps all digits (a plain tostring would switch to exponent notation at this size).
if redis.call('SET', KEYS[1], ARGV[1] .. ':' .. string.format('%d', fence), 'NX', 'PX', ARGV[2]) then
    return taken(1, fence)
end
-- Taken. (A script sees the clock stand still, so the key cannot have expired since the SET.)
local current = redis.call('GET', KEYS[1])
-- A value without a colon is a lock of some other client (a plain SET NX PX): held by someone else.
local colon = string.find(current, ':', 1, true)
local owner = colon and string.sub(current, 1, colon - 1)
local held = colon and string.sub(current, colon + 1)
if owner == ARGV[1] then
    return taken(1, tonumber(held))
end
if waiter and owner == waiter then
    redis.call('SET', KEYS[1], ARGV[1] .. ':' .. held, 'PX', ARGV[2])
    return taken(2, tonumber(held))
end
local permits = owner and string.match(owner, '^~s([1-9]%d*)$')
if permits then
    return {3, tonumber(permits)}
end
if owner ~= '~' then
    if waiter then
        local expires = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[4])
        redis.call('HSET', KEYS[3], waiter, string.format('%d', expires) .. ':' .. ARGV[2] .. ':' .. ARGV[5])
        if not redis.call('LPOS', KEYS[2], waiter) then
            redis.call('RPUSH', KEYS[2], waiter)
        end
        redis.call('PEXPIRE', KEYS[2], ARGV[4])
        redis.call('PEXPIRE', KEYS[3], ARGV[4])
    end
    if owner == '~r' then
        -- Readers hold it (share.lua): said, so that a caller that waits by retries (Redlock) queues behind them.
        return {0, redis.call('PTTL', KEYS[1]), 1}
    end
    return {0, redis.call('PTTL', KEYS[1])}
end
-- '~:<fence>' is what releases by redis-lock 0.1 left for one lease, and what a release leaves when local
-- hand-overs counted past the clock: free, and the next fence counts on from it, so tokens strictly
-- increase as long as the server's clock does not step back.
local last = tonumber(held) or 0
if fence <= last then
    fence = last + 1
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. string.format('%d', fence), 'PX', ARGV[2])
return taken(1, fence)
