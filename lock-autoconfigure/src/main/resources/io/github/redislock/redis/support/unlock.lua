-- Releases a lock only if it is still ours (compare-and-release): hands it straight to the next waiting
-- application if there is one, deletes the key otherwise.
-- KEYS[1]: the lock key (see acquire.lua for its value)
-- KEYS[2]: the applications waiting for the key, in turn order
-- KEYS[3]: per waiting application '<expires at, ms>:<lease ms>:<PUBLISH or SPUBLISH>:<channel>'
-- ARGV[1]: the value the holder stored, '<owner>:<fence>'; or an owner followed by ':' alone, which matches
--          that owner whatever the fence (an acquire whose reply never arrived, or a hand-off to an
--          application none of whose threads is left to take it)
-- ARGV[2]: the releasing application's id when it no longer waits for this key (its queue entry goes,
--          whether or not the key is still ours); absent or empty when it does, or never queued
-- ARGV[3]: the last fencing token the application used under this value, when its threads passed the lock
--          on among themselves (each took the previous one's token + 1, with no call here); absent otherwise.
--          The next holder's token counts on from it.
-- ARGV[4]: keep the key this many more milliseconds instead of releasing it (holdAtLeast: the work ended before
--          its minimum); absent, empty or 0 for a plain release. ARGV[2] and ARGV[3] may then be empty.
-- Returns 1 when the key held our value and was released or handed on, 2 when it was handed on but Redis
-- refused the message (no permission for the channel), 0 when it was gone or held by someone else (our
-- lease expired and another holder took it): that key is left untouched. A kept key (ARGV[4]) returns 1.
-- The hand-off message is the lock key, on the channel the application named in its queue entry; the
-- application's thread that takes the lock over does so in acquire.lua, which Redis alone arbitrates.
-- Nothing read from the queue is trusted (another client may have written it): an entry counts only with a
-- client id of ours (URL-safe Base64), a lease of 1 ms to 30 days, PUBLISH or SPUBLISH and a channel in the
-- library's hand-off namespace of a prefix of the lock key (see KeySlots); any other entry is dropped like an
-- expired one. At most MAX_TURNS entries are looked at per release, each taken off the tail (O(1)): past that
-- the key is deleted, and the waiters left find it free at their next timed look.
local MAX_TURNS = 32
local MAX_LEASE = 2592000000
-- A waiting application's queue entry, if it can be trusted: '<expires, ms>', '<lease, ms>', the publish command
-- and the channel; nothing otherwise. Used by the hand-off and by the keep alike, so that neither publishes on a
-- channel or runs a command another client planted.
local function trusted(client)
    if #client > 64 or string.find(client, '[^%w_%-]') then
        return nil
    end
    local entry = redis.call('HGET', KEYS[3], client)
    if not entry then
        return nil
    end
    local expires, lease, command, channel = string.match(entry, '^(%d+):(%d+):(S?PUBLISH):(.+)$')
    lease = tonumber(lease)
    -- The channel: '<a start of the lock key>~lock~handoff:...', in a cluster '...~lock~{<t>}handoff:...'.
    -- A lock key never contains '~lock~', so this is the hand-off namespace of the prefix the key has.
    local marker = channel and string.find(channel, '~lock~', 1, true)
    if not lease or lease < 1 or lease > MAX_LEASE or not marker
            or string.sub(KEYS[1], 1, marker - 1) ~= string.sub(channel, 1, marker - 1)
            or not (string.find(channel, '^handoff:', marker + 6)
                or string.find(channel, '^{%w+}handoff:', marker + 6)) then
        return nil
    end
    return expires, lease, command, channel
end
if ARGV[2] and ARGV[2] ~= '' then
    redis.call('LREM', KEYS[2], 1, ARGV[2])
    redis.call('HDEL', KEYS[3], ARGV[2])
end
local current = redis.call('GET', KEYS[1])
if not current or (current ~= ARGV[1]
        and not (string.sub(ARGV[1], -1) == ':' and string.sub(current, 1, #ARGV[1]) == ARGV[1])) then
    return 0
end
local last = tonumber(string.sub(current, (string.find(current, ':', 1, true)) + 1))
local used = ARGV[3] and tonumber(ARGV[3])
if used and used > last then
    last = used
end
-- Keep (holdAtLeast), a branch of its own: the key becomes '~kept:<last fence>', owned by nobody (acquire.lua
-- sees it as taken, and no token or application id equals '~kept'), and expires after ARGV[4] ms; nothing is
-- handed on. It lives at least until Redis time has passed the last fence, so that the next fence (Redis time)
-- is larger. The first queued applications are told to look again, so that they wait for its PTTL rather than
-- for their next timed look; only the first 8, as a waiter looks at Redis at least once a second anyway.
local keep = ARGV[4] and tonumber(ARGV[4])
if keep and keep > 0 then
    local time = redis.call('TIME')
    local floor = math.floor((last - (tonumber(time[1]) * 1000000 + tonumber(time[2]))) / 1000) + 1
    if floor > keep then
        keep = floor
    end
    -- pcall: a full Redis (maxmemory) may refuse the rewrite; the holder's value then stays, unusable as well.
    if type(redis.pcall('SET', KEYS[1], '~kept:' .. string.format('%d', last), 'PX', keep)) == 'table' then
        redis.call('PEXPIRE', KEYS[1], keep)
    end
    for _, client in ipairs(redis.call('LRANGE', KEYS[2], 0, 7)) do
        local _, _, command, channel = trusted(client)
        if command then
            redis.pcall(command, channel, KEYS[1])
        end
    end
    return 1
end
local now
for _ = 1, MAX_TURNS do
    -- The head of the line gets the lock and goes to the back: applications take turns. pcall: with
    -- maxmemory reached Redis refuses the first write that may grow memory, and then the lock is
    -- deleted instead (DEL is always allowed), so a full Redis never keeps a finished lock.
    local client = redis.pcall('LMOVE', KEYS[2], KEYS[2], 'LEFT', 'RIGHT')
    if type(client) ~= 'string' then
        break
    end
    if not now then
        local time = redis.call('TIME')
        now = tonumber(time[1]) * 1000000 + tonumber(time[2])
    end
    local expires, lease, command, channel = trusted(client)
    if expires and tonumber(expires) * 1000 > now then
        local fence = last + 1
        if fence < now then
            fence = now
        end
        redis.call('SET', KEYS[1], client .. ':' .. string.format('%d', fence), 'PX', string.format('%d', lease))
        -- pcall: a user without permission for the channel (the Redis 7 ACL default) must not turn a
        -- completed hand-off into an error; the waiter then finds it at its next look.
        if type(redis.pcall(command, channel, KEYS[1])) == 'table' then
            return 2
        end
        return 1
    end
    -- An application that stopped refreshing its entry (gone, or no longer waiting) loses its turn. It was
    -- just moved to the tail: removed from there, without scanning the list.
    redis.call('LREM', KEYS[2], -1, client)
    redis.call('HDEL', KEYS[3], client)
end
if used then
    -- Fences of a free key come from the clock: local hand-overs counting faster than it (never seen; it
    -- would take more than one a microsecond) leave their last fence as a floor until the clock has passed it.
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000000 + tonumber(time[2])
    if last >= now then
        redis.call('SET', KEYS[1], '~:' .. string.format('%d', last), 'PX', math.floor((last - now) / 1000) + 1)
        return 1
    end
end
redis.call('DEL', KEYS[1])
return 1
