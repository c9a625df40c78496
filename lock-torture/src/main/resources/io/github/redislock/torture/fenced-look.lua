-- The fencing store: a reader's read, with the reader's fencing token. Readers hold a key together and do not
-- write, so a reader is refused (and counted for the worker) only below the highest token a writer has read or
-- written with ('max'): a writer took the key after this reader had lost it. An accepted read raises 'readers',
-- the highest reader's token, below which a writer is refused in turn (fenced-read.lua, fenced-write.lua).
-- KEYS[1]: the resource's hash (max, readers, value); KEYS[2]: rejections per worker
-- ARGV[1]: the fencing token (decimal); ARGV[2]: the worker
-- Returns {1, value} or {0}.
local max = redis.call('HGET', KEYS[1], 'max')
if max and tonumber(ARGV[1]) < tonumber(max) then
    redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
    return {0}
end
local readers = redis.call('HGET', KEYS[1], 'readers')
if not readers or tonumber(ARGV[1]) > tonumber(readers) then
    redis.call('HSET', KEYS[1], 'readers', ARGV[1])
end
return {1, redis.call('HGET', KEYS[1], 'value') or '0'}
