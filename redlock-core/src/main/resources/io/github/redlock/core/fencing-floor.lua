-- A node's fencing counter, KEYS[1]. With ARGV[1], raises it to at least that (never lowers it), creating it
-- when absent, which marks the node as checked since its start. Returns the counter afterwards, or -1 when
-- the node has none (no fencing client touched it since it started) and no ARGV[1] was given.
local counter = redis.call('get', KEYS[1])
if ARGV[1] and (not counter or tonumber(counter) < tonumber(ARGV[1])) then
    redis.call('set', KEYS[1], ARGV[1])
    counter = ARGV[1]
end
if not counter then
    return -1
end
return tonumber(counter)
