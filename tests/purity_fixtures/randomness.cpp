#include <random>  // expect: randomness
#include <cstdlib>

unsigned draw() {
  std::random_device entropy;  // expect: randomness
  std::mt19937 engine(entropy());  // expect: randomness
  std::uniform_int_distribution<int> pick(0, 9);  // expect: randomness
  srand(42);  // expect: randomness
  return static_cast<unsigned>(rand() + pick(engine));  // expect: randomness
}
