-- Raises a Redlock fencing counter on one node: sets it to the larger of its stored value and the proposed one
-- (never lowers it), so that writes of one token by several holders or in any order leave the maximum.
-- KEYS[1]: the lock's fencing counter on this node (a plain integer)
-- ARGV[1]: the proposed token: one more than the largest counter a majority of nodes reported, or the largest
--          clock of those nodes when that is more
-- ARGV[2]: how long the counter lasts once raised, in ms (tokens count on from the clocks after that)
-- ARGV[3]: optional: 'above' raises only when the proposed token is larger than the counter: shares (read locks,
--          permits) that hold a key together each need a token of their own, so of two proposing the same one
--          only the first gets it on this node
-- Returns the counter after the call: ARGV[1] when it was raised to (or already at) the proposed token, a larger
-- number when some holder already wrote a larger one; with 'above', ARGV[1] only when raised, else the counter
-- negated (never a token).
-- A stored value that is not a number (another client wrote it) counts as none.
local stored = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
local proposed = tonumber(ARGV[1])
if proposed > stored then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return proposed
end
if ARGV[3] == 'above' then
    return -stored
end
return stored
