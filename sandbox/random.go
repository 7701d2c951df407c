package sandbox

// xoshiro is xoshiro256**, seeded through splitmix64.
type xoshiro struct{ s [4]uint64 }

func newXoshiro(seed uint64) xoshiro {
	var x xoshiro
	for i := range x.s {
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		x.s[i] = z ^ (z >> 31)
	}
	return x
}

func rotl(x uint64, k uint) uint64 { return (x << k) | (x >> (64 - k)) }

func (x *xoshiro) next() uint64 {
	s := &x.s
	result := rotl(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = rotl(s[3], 45)
	return result
}

func (x *xoshiro) float64() float64 { return float64(x.next()>>11) / (1 << 53) }
