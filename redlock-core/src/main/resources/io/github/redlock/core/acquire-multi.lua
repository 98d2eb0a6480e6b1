-- Exclusive lock on several keys at once, one node: all or none. KEYS the lock's keys (distinct, sorted). ARGV[1]
-- token, ARGV[2] ttl ms. Sets every key to the token with that ttl (as SET PX, the single-key lock's layout, so
-- each key also excludes and is excluded by the single-key lock of its name) only when none of them exists.
-- Returns 1 when set; when refused, -(PTTL + 2) of the existing key that lives longest (-1 when one has no
-- expiry), so that a waiting caller knows when all of them are free again. Never sets part of the keys.
local longest = -2
for i = 1, #KEYS do
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
for i = 1, #KEYS do
    redis.call('set', KEYS[i], ARGV[1], 'PX', ARGV[2])
end
return 1
