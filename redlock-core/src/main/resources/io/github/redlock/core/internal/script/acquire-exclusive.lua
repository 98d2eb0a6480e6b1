-- Exclusive lock for a caller that will wait, one node. KEYS[1] the lock's key. ARGV[1] token, ARGV[2] ttl ms.
-- Sets the key as SET NX PX does. Returns 1 when set; when refused, -(PTTL + 2) of the holder's key (-1 for a
-- key without expiry), so that the caller knows when to try again without another round trip.
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return 1
end
return -(redis.call('pttl', KEYS[1]) + 2)
