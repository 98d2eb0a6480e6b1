-- Exclusive lock with a fencing token, one node. KEYS[1] the lock's key, KEYS[2] the node's fencing counter.
-- ARGV[1] token, ARGV[2] ttl ms. Sets the key as the plain lock does (SET NX PX: same key, same value, so
-- other Redlock clients still exclude this one) and, where it set it, raises the counter by one
-- (next_fence, after fence-prelude.lua).
-- Returns the counter afterwards (at least 1) when set; when refused, -(PTTL + 2) of the holder's key (-1 for a
-- key without expiry), so that a waiting caller knows when to try again.
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return next_fence(KEYS[2])
end
return -(redis.call('pttl', KEYS[1]) + 2)
