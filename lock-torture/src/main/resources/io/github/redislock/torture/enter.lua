-- A section enters its resources. KEYS: the occupancy sets of its resources; ARGV[1]: the section's member
-- '<worker>:<thread>:<sequence>'. Returns the witness's time (seconds, microseconds) and the members already
-- inside any of the resources: each one is an overlap. Members of workers the suite killed (set 'dead') are
-- not counted: a killed process is inside nothing, it just could not say it left.
local time = redis.call('TIME')
local reply = {time[1], time[2]}
for _, key in ipairs(KEYS) do
    for _, member in ipairs(redis.call('SMEMBERS', key)) do
        local worker = string.match(member, '^([^:]+):')
        if redis.call('SISMEMBER', 'dead', worker) == 0 then
            table.insert(reply, member)
        end
    end
    redis.call('SADD', key, ARGV[1])
end
return reply
