-- The fencing store: a write of the value read plus one, with the writer's fencing token. Rejected (and counted
-- for the worker) when the token is below the highest the resource has seen. An accepted write whose read value
-- is no longer the stored one overwrote someone else's update: a lost update.
-- KEYS[1]: the resource's hash (max, value, accepted); KEYS[2]: rejections per worker
-- ARGV[1]: the fencing token; ARGV[2]: the worker; ARGV[3]: the value the section read
-- Returns 1 accepted, 2 accepted but lost an update, 0 rejected.
local max = redis.call('HGET', KEYS[1], 'max')
-- 'readers': the highest token a reader read with (fenced-look.lua; none in the exclusive workload).
local readers = redis.call('HGET', KEYS[1], 'readers')
if (max and tonumber(ARGV[1]) < tonumber(max)) or (readers and tonumber(ARGV[1]) < tonumber(readers)) then
    redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
    return 0
end
local value = redis.call('HGET', KEYS[1], 'value') or '0'
redis.call('HSET', KEYS[1], 'max', ARGV[1], 'value', tostring(tonumber(ARGV[3]) + 1))
redis.call('HINCRBY', KEYS[1], 'accepted', 1)
if value ~= ARGV[3] then
    return 2
end
return 1
