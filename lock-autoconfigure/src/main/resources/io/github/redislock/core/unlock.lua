-- Releases a lock only if it is still ours (compare-and-delete).
-- KEYS[1]: the lock key
-- ARGV[1]: the token the holder stored at acquisition
-- Returns 1 when the key held our token and was deleted, 0 when it was gone or held by someone else
-- (our lease expired and another holder took it): that key is left untouched.
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
