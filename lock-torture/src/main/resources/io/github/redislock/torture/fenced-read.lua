-- The fencing store: a read that carries the reader's fencing token. A token below the highest one the resource
-- has seen is rejected (and counted for the worker); otherwise the token becomes the highest and the value is
-- returned. Fencing reads as well as writes is what makes a paused holder's read-modify-write fail as a whole.
-- KEYS[1]: the resource's hash (max, value); KEYS[2]: rejections per worker
-- ARGV[1]: the fencing token (decimal); ARGV[2]: the worker
-- Returns {1, value} or {0}.
local max = redis.call('HGET', KEYS[1], 'max')
-- 'readers': the highest token a reader read with (fenced-look.lua; none in the exclusive workload).
local readers = redis.call('HGET', KEYS[1], 'readers')
if (max and tonumber(ARGV[1]) < tonumber(max)) or (readers and tonumber(ARGV[1]) < tonumber(readers)) then
    redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
    return {0}
end
redis.call('HSET', KEYS[1], 'max', ARGV[1])
return {1, redis.call('HGET', KEYS[1], 'value') or '0'}
