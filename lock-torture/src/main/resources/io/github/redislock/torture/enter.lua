-- A section enters its resources. KEYS: the occupancy sets of its resources; ARGV[1]: the section's member
-- '<worker>:<thread>:<sequence>', followed on the shared workloads by ':<share>', the share being W (a write lock),
-- R (a read lock) or P<n> (a permit of a semaphore of n). Returns the witness's time (seconds, microseconds) and the
-- members inside whose presence breaks the key's bound with this entry, each an overlap: for a plain lock or a
-- writer every member inside; for a reader those that are not readers; for a permit those of another share, and
-- every member inside when n or more are (the breach is theirs together: one of them at least must have lost its
-- permit). Members of workers the suite killed (set 'dead') are not counted: a killed process is inside nothing,
-- it just could not say it left.
local time = redis.call('TIME')
local reply = {time[1], time[2]}
local share = string.match(ARGV[1], '^[^:]+:[^:]+:[^:]+:(.+)$')
local permits = share and tonumber(string.match(share, '^P(%d+)$'))
for _, key in ipairs(KEYS) do
    local inside = {}
    for _, member in ipairs(redis.call('SMEMBERS', key)) do
        local worker = string.match(member, '^([^:]+):')
        if redis.call('SISMEMBER', 'dead', worker) == 0 then
            table.insert(inside, member)
        end
    end
    for _, member in ipairs(inside) do
        local other = string.match(member, '^[^:]+:[^:]+:[^:]+:(.+)$')
        local breach = true
        if share == 'R' then
            breach = other ~= 'R'
        elseif permits then
            breach = other ~= share or #inside >= permits
        end
        if breach then
            table.insert(reply, member)
        end
    end
    redis.call('SADD', key, ARGV[1])
end
return reply
