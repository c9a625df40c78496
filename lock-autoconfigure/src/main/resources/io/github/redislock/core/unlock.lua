-- Releases a lock only if it is still ours (compare-and-release), handing it straight to the next waiting
-- client if there is one.
-- KEYS[1]: the lock key (see acquire.lua for its value)
-- KEYS[2]: the waiting clients of the key, in turn order
-- KEYS[3]: per waiting client '<expires at, ms>:<lease ms>'
-- ARGV[1]: the value the holder stored, '<owner>:<fence>'
-- ARGV[2]: the hand-off channel prefix (a client's channel is the prefix followed by its id); absent:
--          'redis-lock:handoff:', the one of a standalone server
-- ARGV[3]: 'PUBLISH', or 'SPUBLISH' where the channel is sharded; absent: 'PUBLISH'
-- ARGV[4]: the releasing client's id when it no longer waits for this key (its queue entry goes); absent
--          when it does, or never queued
-- Returns 1 when the key held our value and was released or handed on, 0 when it was gone or held by
-- someone else (our lease expired and another holder took it): that key is left untouched.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return 0
end
if ARGV[4] then
    redis.call('LREM', KEYS[2], 1, ARGV[4])
    redis.call('HDEL', KEYS[3], ARGV[4])
end
-- The text from the colon on: ':<fence>'.
local fenced = string.sub(ARGV[1], (string.find(ARGV[1], ':', 1, true)))
local now
while true do
    -- The head of the line gets the lock and goes to the back: clients take turns.
    local client = redis.call('LMOVE', KEYS[2], KEYS[2], 'LEFT', 'RIGHT')
    if not client then
        break
    end
    local entry = redis.call('HGET', KEYS[3], client)
    if not now then
        local time = redis.call('TIME')
        now = tonumber(time[1]) * 1000000 + tonumber(time[2])
    end
    local colon = entry and string.find(entry, ':', 1, true)
    if colon and tonumber(string.sub(entry, 1, colon - 1)) * 1000 > now then
        local fence = tonumber(string.sub(fenced, 2)) + 1
        if fence < now then
            fence = now
        end
        fence = string.format('%d', fence)
        redis.call('SET', KEYS[1], client .. ':' .. fence, 'PX', string.sub(entry, colon + 1))
        redis.call(ARGV[3] or 'PUBLISH', (ARGV[2] or 'redis-lock:handoff:') .. client, fence .. ':' .. KEYS[1])
        return 1
    end
    -- A client that stopped refreshing its entry (gone, or no longer waiting) loses its turn.
    redis.call('LREM', KEYS[2], 1, client)
    redis.call('HDEL', KEYS[3], client)
end
-- Free: the marker keeps the last fence for what is left of the lease, for the next holder to count on from.
redis.call('SET', KEYS[1], '~' .. fenced, 'KEEPTTL')
return 1
