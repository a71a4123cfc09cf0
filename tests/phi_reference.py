#!/usr/bin/env python3
"""Reference phi values for tests/phi_detector_test.cpp.

An independent re-implementation of Akka's PhiAccrualFailureDetector model
(akka.remote.PhiAccrualFailureDetector, "phi" and "firstHeartbeat"), written
from the published formula and not from kernel/detection/phi_detector.cpp:

    y   = (elapsed - mean) / sigma
    e   = exp(-y * (1.5976 + 0.070566 * y^2))
    phi = -log10(e / (1 + e))            if elapsed > mean
          -log10(1 - 1 / (1 + e))        otherwise
    mean  = window mean + acceptable pause
    sigma = max(window std-dev, min std-dev)

The window (bootstrap samples estimate -/+ estimate/4, sliding window of
max_sample_size intervals, an interval not recorded when phi at its end is
already >= threshold) is kept in exact integers; mean and variance are exact
rationals (fractions.Fraction), rounded to float only at the end, so this
script shares no rounding path with the kernel's running sums.

    python3 tests/phi_reference.py      # prints the C++ tables to paste

Each scenario prints the window statistics after the heartbeats and phi at
a list of elapsed times after the last heartbeat.
"""

import math
from fractions import Fraction

NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000


def phi_formula(elapsed_ns, mean_ns, sigma_ns):
    y = (elapsed_ns - mean_ns) / sigma_ns
    x = -y * (1.5976 + 0.070566 * y * y)
    e = math.exp(x) if x < 709.0 else math.inf  # C's exp overflows to inf
    if elapsed_ns > mean_ns:
        return -math.log10(e / (1.0 + e)) if e > 0.0 else math.inf
    return -math.log10(1.0 - 1.0 / (1.0 + e))


class Detector:
    def __init__(self, threshold=8.0, min_std_ms=100, pause_ms=3000, max_samples=1000,
                 first_estimate_ms=1000):
        self.threshold = threshold
        self.min_std_ns = min_std_ms * NS_PER_MS
        self.pause_ns = pause_ms * NS_PER_MS
        self.max_samples = max_samples
        self.first_estimate_ns = first_estimate_ms * NS_PER_MS
        self.window = []  # oldest first
        self.last = None

    def _record(self, interval_ns):
        self.window.append(interval_ns)
        if len(self.window) > self.max_samples:
            self.window.pop(0)

    def mean(self):
        return Fraction(sum(self.window), len(self.window))

    def std_dev(self):
        m = self.mean()
        variance = sum((Fraction(x) - m) ** 2 for x in self.window) / len(self.window)
        return math.sqrt(float(variance))

    def phi(self, now_ns):
        if self.last is None:
            return 0.0
        mean = float(self.mean()) + self.pause_ns
        sigma = max(self.std_dev(), float(self.min_std_ns))
        return phi_formula(float(now_ns - self.last), mean, sigma)

    def heartbeat(self, now_ns):
        if self.last is None:
            e = self.first_estimate_ns
            self._record(e - e // 4)
            self._record(e + e // 4)
        elif self.phi(now_ns) < self.threshold:
            self._record(now_ns - self.last)
        self.last = now_ns


def crossing_ns(detector):
    """Smallest elapsed ns (to 1 ns) at which phi >= threshold."""
    low, high = 0, 1
    while detector.phi(detector.last + high) < detector.threshold:
        high *= 2
    while high - low > 1:
        mid = (low + high) // 2
        if detector.phi(detector.last + mid) < detector.threshold:
            low = mid
        else:
            high = mid
    return high


def emit(name, detector, elapsed_ms_list):
    print(f"// {name}: {len(detector.window)} samples, "
          f"mean {float(detector.mean()) / NS_PER_MS:.6g} ms, "
          f"std-dev {detector.std_dev() / NS_PER_MS:.6g} ms, "
          f"phi >= {detector.threshold} from {crossing_ns(detector)} ns after the last heartbeat")
    print(f"constexpr std::uint32_t k{name}Samples = {len(detector.window)};")
    print(f"constexpr double k{name}MeanNs = {float(detector.mean())!r};")
    print(f"constexpr double k{name}StdDevNs = {detector.std_dev()!r};")
    print(f"constexpr std::int64_t k{name}CrossingNs = {crossing_ns(detector)};")
    print(f"constexpr PhiRow k{name}Table[] = {{")
    for ms in elapsed_ms_list:
        ns = round(ms * NS_PER_MS)
        value = detector.phi(detector.last + ns)
        text = "kInf" if math.isinf(value) else repr(value)
        print(f"    {{{ns}, {text}}},")
    print("};")
    print()


def main():
    elapsed_s = [0, 1000, 2000, 3000, 3500, 4000, 4100, 4200, 4300, 4400, 4500, 4520, 4600,
                 4700, 5000, 6000, 20000]

    # Akka defaults, a heartbeat every second from 0 s to 20 s.
    steady = Detector()
    for second in range(21):
        steady.heartbeat(second * NS_PER_S)
    emit("Steady", steady, elapsed_s)

    # Akka defaults, one heartbeat only: judged on the bootstrap samples.
    bootstrap = Detector()
    bootstrap.heartbeat(7 * NS_PER_S)
    emit("Bootstrap", bootstrap, [0, 3000, 4000, 4500, 5000, 5500, 6000, 7000])

    # Akka defaults, jittery intervals: the window's spread exceeds the floor.
    jitter = Detector()
    t = 0
    jitter.heartbeat(t)
    for ms in [1000, 1200, 800, 1500, 600, 1100, 900, 1300, 1700, 400]:
        t += ms * NS_PER_MS
        jitter.heartbeat(t)
    emit("Jitter", jitter, [0, 1000, 3000, 4000, 4500, 5000, 5500, 6000, 7000])

    # Small window (5 samples), tight floor, short pause, lower threshold:
    # bootstrap samples are evicted and the window slides.
    small = Detector(threshold=5.0, min_std_ms=20, pause_ms=500, max_samples=5,
                     first_estimate_ms=200)
    t = 0
    small.heartbeat(t)
    for ms in [200, 210, 190, 250, 180, 220, 205]:
        t += ms * NS_PER_MS
        small.heartbeat(t)
    emit("Small", small, [0, 100, 500, 650, 700, 750, 800, 900])


if __name__ == "__main__":
    main()
