-- Takes or releases a share of a key: a read lock, or one permit of a semaphore; serves the waiters the change
-- lets in. Write locks stay acquire.lua's and unlock.lua's: their value under KEYS[1] is what this script sees
-- as "held exclusively", and a writer waits for shares in the same queue as every other waiter.
-- KEYS[1]: the lock key. While shared it holds the marker '~<kind>:<last fence>' ('~r:...' for read locks,
--          '~s<N>:...' for a semaphore of N) with the TTL of the longest-lived holder: acquire.lua's SET NX then
--          fails, so a writer queues. Anything else is acquire.lua's (a write lock, a hand-off, '~kept:', the
--          fence floor '~:<fence>', which counts as free) or another client's (held by someone else).
-- KEYS[2]: the queue, in turn order: '<client id>' for an application waiting for a write lock (acquire.lua; on
--          Redlock's nodes '<id>_w_<n>' for one waiting writer), '<client id>_<kind>_<n>' for one waiting share
--          (this script); same cluster slot
-- KEYS[3]: per waiter '<expires at, ms>:<lease ms>:<PUBLISH or SPUBLISH>:<channel>' (a hash; same cluster slot)
-- KEYS[4]: the holders (a sorted set scored by when each expires, Redis time in ms; same cluster slot):
--          '<token>:<fence>' per holder, '<waiter id>' per waiter admitted but not yet there, '~kept:<fence>' per
--          holder kept by holdAtLeast
-- ARGV[1]: 'take' or 'release'
-- take:    ARGV[2] the caller's token; ARGV[3] its lease, ms; ARGV[4] the kind ('r', or 's<N>');
--          ARGV[5] its waiter id (absent or '': one attempt that never queues); ARGV[6] how long the queue entry
--          stays valid unrefreshed, ms; ARGV[7] '<PUBLISH or SPUBLISH>:<channel>' (how the caller hears that it is
--          in); ARGV[8] 'slots' for a permit of a semaphore kept on several nodes (Redlock), one attempt: the
--          permit takes the lowest of the N slots free here, as '<slot>/<token>:<fence>', so that a holder counts
--          only where a majority gave it the same slot and no two holders can count on one slot
-- release: ARGV[2] the holder ('<token>:<fence>'; '<token>:' matches any fence of the token; '' none);
--          ARGV[3] a waiter id to take out of the queue and the holders ('' none); ARGV[4] keep the holder this many
--          ms instead (holdAtLeast; '' or '0' none)
-- Returns, for take: {1, fence} a holder now ({1, fence, slot} with ARGV[8]); {2, fence} a holder now, let in
--          from the queue (or handed the key by
--          a writer's release); {0, ms} wait: the queue is ahead or the key full, at least until the key's or the
--          first share's lease ends unless told earlier; {3, permits} the key is in use with another permit count
--          (0 a read lock, 1 a write lock, N a semaphore of N; the caller's queue entry is gone); {4, 0} the key
--          holds another Redis type.
--          For release: {1, 0} the holder was there and is gone (or kept), {0, 0} it was not (expired, or
--          someone else's), the key left alone but for expired holders.
-- Serving the queue (serve): from its head, a waiter that is gone or untrusted is dropped; a waiter for this
-- kind is let in while it fits (any number of readers while no writer is ahead of them; up to N permits), as
-- '<waiter id>' among the holders with its own lease, and told on its channel; a writer application at the head
-- gets a key nobody shares any more, as unlock.lua hands it on. Fences are Redis time in microseconds, or one more
-- than the last when that is larger: strictly increasing across write locks, read locks and permits.
local MAX_TURNS = 32
local MAX_LEASE = 2592000000
local time = redis.call('TIME')
local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
local now = math.floor(micros / 1000)

-- What the key is: 'free', 'shared' (with its kind), 'exclusive' (with its owner) or 'type' (not a string);
-- and its last fence.
local function state()
    local value = redis.pcall('GET', KEYS[1])
    if type(value) == 'table' then
        return 'type', 0
    end
    if not value then
        return 'free', 0
    end
    local owner, digits = string.match(value, '^([^:]*):(%d+)$')
    local fence = digits and #digits <= 18 and tonumber(digits)
    if owner == '~' and fence then
        return 'free', fence
    end
    if fence and (owner == '~r' or string.match(owner, '^~s[1-9]%d?%d?%d?%d?%d?%d?%d?%d?$')) then
        return 'shared', fence, string.sub(owner, 2)
    end
    return 'exclusive', fence or 0, nil, owner
end

-- The permit count of a kind as a mismatch reports it: 0 for a read lock, N for a semaphore of N ('s1': a write lock).
local function permits(kind)
    return (kind == 'r') and 0 or tonumber(string.sub(kind, 2))
end

-- The kind a waiter id asks for: '<client id (22 characters)>_<kind>_<n>'; nil for a writer application's
-- '<client id>' (or anything else).
local function wants(waiter)
    return (#waiter > 22) and string.match(string.sub(waiter, 23), '^_([rs]%d*)_%w+$') or nil
end

-- A queue entry, if it can be trusted (see unlock.lua): expiry, lease, publish command, channel in the hand-off
-- namespace of the key's prefix.
local function entry(waiter)
    if #waiter > 64 or string.find(waiter, '[^%w_%-]') then
        return nil
    end
    local text = redis.call('HGET', KEYS[3], waiter)
    local expires, lease, command, channel = string.match(text or '', '^(%d+):(%d+):(S?PUBLISH):(.+)$')
    lease = tonumber(lease)
    local marker = channel and string.find(channel, '~lock~', 1, true)
    if not lease or lease < 1 or lease > MAX_LEASE or tonumber(expires) <= now or not marker
            or string.sub(KEYS[1], 1, marker - 1) ~= string.sub(channel, 1, marker - 1)
            or not (string.find(channel, '^handoff:', marker + 6)
                or string.find(channel, '^{%w+}handoff:', marker + 6)) then
        return nil
    end
    return lease, command, channel
end

-- Drops holders whose lease ran out, and entries scored past any lease this library gives (another client's).
local function prune()
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '(' .. string.format('%d', now + MAX_LEASE), '+inf')
end

local function unqueue(waiter)
    redis.call('LREM', KEYS[2], 1, waiter)
    redis.call('HDEL', KEYS[3], waiter)
end

local function nextFence(last)
    return (micros > last) and micros or last + 1
end

-- The key goes free: the fence floor stays while the clock has not passed the last fence (see unlock.lua).
local function free(last)
    redis.call('DEL', KEYS[4])
    if last >= micros then
        redis.call('SET', KEYS[1], '~:' .. string.format('%d', last), 'PX', math.floor((last - micros) / 1000) + 1)
    else
        redis.call('DEL', KEYS[1])
    end
end

-- The marker, with the TTL of the longest-lived holder; the key goes free when none is left.
local function mark(kind, last)
    local longest = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')[2]
    if not longest then
        free(last)
        return
    end
    local ttl = math.max(1, math.floor(tonumber(longest) - now))
    redis.call('SET', KEYS[1], '~' .. kind .. ':' .. string.format('%d', last), 'PX', ttl)
    redis.call('PEXPIRE', KEYS[4], ttl)
end

-- Serves the queue (see the header). Returns the kind and holder count afterwards, and true when the key went
-- to a writer application.
local function serve(kind, count, last)
    local told = {}
    for _ = 1, MAX_TURNS do
        local waiter = redis.call('LINDEX', KEYS[2], 0)
        if not waiter then
            break
        end
        local lease, command, channel = entry(waiter)
        local asks = lease and wants(waiter)
        if not lease or (asks and kind and asks ~= kind) then
            -- Gone, untrusted, or asking for another permit count (its next attempt fails): dropped.
            unqueue(waiter)
        elseif not asks then
            if count > 0 then
                break
            end
            redis.call('SET', KEYS[1], waiter .. ':' .. string.format('%d', nextFence(last)), 'PX', lease)
            redis.call('LMOVE', KEYS[2], KEYS[2], 'LEFT', 'RIGHT')
            redis.call('DEL', KEYS[4])
            redis.pcall(command, channel, KEYS[1])
            return kind, 0, true
        elseif asks ~= 'r' and count >= permits(asks) then
            break
        else
            kind = asks
            count = count + 1
            redis.call('ZADD', KEYS[4], now + lease, waiter)
            unqueue(waiter)
            if not told[channel] then
                told[channel] = true
                -- pcall: a user without permission for the channel finds it at its next look (see unlock.lua).
                redis.pcall(command, channel, KEYS[1])
            end
        end
    end
    return kind, count, false
end

local function waitFor(exclusive)
    if exclusive then
        return redis.call('PTTL', KEYS[1])
    end
    local first = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')[2]
    return first and math.max(0, tonumber(first) - now) or -1
end

-- A permit in the lowest slot free here (see ARGV[8]), or {0, ms} when all N are taken.
local function takeSlot(token, lease, kind, last)
    local taken = {}
    for _, member in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
        local slot = string.match(member, '^(%d+)/')
        if slot then
            taken[tonumber(slot)] = true
        end
    end
    for slot = 0, permits(kind) - 1 do
        if not taken[slot] then
            last = nextFence(last)
            redis.call('ZADD', KEYS[4], now + lease, slot .. '/' .. token .. ':' .. string.format('%d', last))
            mark(kind, last)
            return {1, last, slot}
        end
    end
    return {0, waitFor(false)}
end

local function take()
    local token, lease, kind, waiter = ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
    if waiter == '' then
        waiter = nil
    end
    local function enqueue(exclusive)
        if waiter then
            redis.call('HSET', KEYS[3], waiter, string.format('%d', now + tonumber(ARGV[6])) .. ':' .. ARGV[3]
                .. ':' .. ARGV[7])
            if not redis.call('LPOS', KEYS[2], waiter) then
                redis.call('RPUSH', KEYS[2], waiter)
            end
            redis.call('PEXPIRE', KEYS[2], ARGV[6])
            redis.call('PEXPIRE', KEYS[3], ARGV[6])
        end
        return {0, waitFor(exclusive)}
    end
    local function mismatch(held)
        if waiter then
            unqueue(waiter)
        end
        return {3, permits(held)}
    end
    -- Waiting for a writer: fine for a reader; a semaphore's permits never share a key with a write lock.
    local function behindWriter()
        return (kind == 'r') and enqueue(true) or mismatch('s1')
    end
    local st, last, held, owner = state()
    if st == 'type' then
        return {4, 0}
    end
    local count = 0
    local admitted = false
    if st == 'exclusive' then
        if not (waiter and owner == waiter) then
            -- A write lock, a writer's turn or someone else's value; or the key handed to another waiter for a
            -- share by a writer's release, which tells its kind.
            local other = owner and wants(owner)
            if other and other ~= kind then
                return mismatch(other)
            end
            return other and enqueue(true) or behindWriter()
        end
        -- Handed to this waiter by a writer's release: the key becomes shared, this waiter its first holder.
        redis.call('DEL', KEYS[4])
        admitted = true
        held = kind
    elseif st == 'shared' then
        if held ~= kind then
            return mismatch(held)
        end
        prune()
        count = redis.call('ZCARD', KEYS[4])
        admitted = waiter and redis.call('ZSCORE', KEYS[4], waiter)
    else
        -- Free: holders left from a marker that went (deleted behind our back) are stale.
        redis.call('DEL', KEYS[4])
    end
    if ARGV[8] == 'slots' and kind ~= 'r' then
        return takeSlot(token, lease, kind, last)
    end
    if not admitted then
        -- The queue first: the caller comes in only behind every waiter that fits before it.
        local handed
        held, count, handed = serve(held, count, last)
        if handed then
            return behindWriter()
        end
        if held and held ~= kind then
            return mismatch(held)
        end
        admitted = waiter and redis.call('ZSCORE', KEYS[4], waiter)
        if not admitted and (redis.call('LLEN', KEYS[2]) > 0 or (kind ~= 'r' and count >= permits(kind))) then
            return enqueue(false)
        end
    end
    if waiter then
        redis.call('ZREM', KEYS[4], waiter)
        unqueue(waiter)
    end
    last = nextFence(last)
    redis.call('ZADD', KEYS[4], now + lease, token .. ':' .. string.format('%d', last))
    -- Readers behind this one, up to the first writer, come in with it (a semaphore: while permits are left).
    serve(kind, redis.call('ZCARD', KEYS[4]), last)
    mark(kind, last)
    return {admitted and 2 or 1, last}
end

local function release()
    local holder, leaving, keep = ARGV[2], ARGV[3], tonumber(ARGV[4] or '0') or 0
    if leaving ~= '' then
        unqueue(leaving)
    end
    local st, last, kind, owner = state()
    if st == 'exclusive' and leaving ~= '' and owner == leaving then
        -- Handed to a waiter that gave up before taking it: handed on, as if free.
        st = 'free'
        redis.call('DEL', KEYS[4])
    elseif st ~= 'shared' then
        return {0, 0}
    end
    local released = 0
    local matched = {}
    if string.sub(holder, -1) == ':' then
        for _, member in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
            local bare = string.match(member, '^%d+/(.*)$') or member
            if string.sub(bare, 1, #holder) == holder then
                matched[#matched + 1] = member
            end
        end
    elseif holder ~= '' then
        matched[1] = holder
    end
    for _, member in ipairs(matched) do
        local expires = tonumber(redis.call('ZSCORE', KEYS[4], member))
        if expires then
            redis.call('ZREM', KEYS[4], member)
            if expires > now then
                released = 1
                if keep > 0 then
                    redis.call('ZADD', KEYS[4], now + keep, '~kept:' .. string.match(member, '(%d+)$'))
                end
            end
        end
    end
    if leaving ~= '' then
        redis.call('ZREM', KEYS[4], leaving)
    end
    prune()
    local served, _, handed = serve(kind, redis.call('ZCARD', KEYS[4]), last)
    if not handed then
        if served then
            mark(served, last)
        else
            free(last)
        end
    end
    return {released, 0}
end

if ARGV[1] == 'take' then
    return take()
end
return release()
