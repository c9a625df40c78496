-- A section leaves its resources. KEYS: the occupancy sets; ARGV[1]: the section's member. Returns the time.
for _, key in ipairs(KEYS) do
    redis.call('SREM', key, ARGV[1])
end
return redis.call('TIME')
