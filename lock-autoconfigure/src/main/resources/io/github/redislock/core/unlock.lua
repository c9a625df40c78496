-- Releases a lock only if it is still ours (compare-and-delete), and tells waiters it is free.
-- KEYS[1]: the lock key
-- ARGV[1]: the token the holder stored at acquisition
-- ARGV[2]: the release channel of the key, on which waiting clients listen
-- Returns 1 when the key held our token and was deleted, 0 when it was gone or held by someone else
-- (our lease expired and another holder took it): that key is left untouched and nothing is published.
if redis.call('GET', KEYS[1]) == ARGV[1] then
    redis.call('DEL', KEYS[1])
    redis.call('PUBLISH', ARGV[2], '1')
    return 1
end
return 0
