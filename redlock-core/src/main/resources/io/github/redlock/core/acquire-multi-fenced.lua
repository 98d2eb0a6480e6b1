-- Exclusive lock on several keys at once with a fencing token, one node: all or none. KEYS[1 .. n-1] the lock's
-- keys (distinct, sorted), KEYS[n] the node's fencing counter. ARGV[1] token, ARGV[2] ttl ms. Sets every lock key
-- as acquire-multi.lua does and, where it set them, raises the counter by one. Returns the counter afterwards (at
-- least 1) when set; when refused, -(PTTL + 2) of the existing key that lives longest (-1: one has no expiry).
local longest = -2
for i = 1, #KEYS - 1 do
    local left = redis.call('pttl', KEYS[i])
    if left == -1 then
        return -1
    end
    if left > longest then
        longest = left
    end
end
if longest >= 0 then
    return -(longest + 2)
end
for i = 1, #KEYS - 1 do
    redis.call('set', KEYS[i], ARGV[1], 'PX', ARGV[2])
end
return redis.call('incr', KEYS[#KEYS])
