// Goal: weft's hand-written MessagePack reader and writer agree byte for byte
// with msgpack-c (an independent implementation) at every length boundary,
// accept every valid encoding of a value, and turn every malformed input into
// a named error with no out-of-bounds read.
#include "kernel/wire/msgpack.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wire_test_support.hpp"

namespace weft::wire {
namespace {

using testing::ByteVector;
using testing::Pack;

template <class WriteFn>
ByteVector write_with(std::size_t size, WriteFn write) {
  ByteVector out(size);
  Writer writer(out.data(), out.size());
  write(writer);
  EXPECT_EQ(writer.unused(), 0u) << "size_of_* disagrees with what was written";
  return out;
}

TEST(MsgpackWriter, UintMatchesMsgpackCAtEveryBoundary) {
  for (std::uint64_t v : {0ULL, 1ULL, 127ULL, 128ULL, 255ULL, 256ULL, 65535ULL, 65536ULL,
                          0xffffffffULL, 0x100000000ULL, 0xffffffffffffffffULL}) {
    const ByteVector ours =
        write_with(Writer::size_of_uint(v), [&](Writer& w) { w.write_uint(v); });
    EXPECT_EQ(ours, Pack().uint(v).bytes()) << v;
    std::uint64_t back = 0;
    Reader reader(ours);
    ASSERT_EQ(reader.read_uint(back), WireError::none);
    EXPECT_EQ(back, v);
    EXPECT_TRUE(reader.at_end());
  }
}

TEST(MsgpackWriter, StrBinAndHeadersMatchMsgpackCAtEveryBoundary) {
  for (std::size_t n : {0UL, 1UL, 31UL, 32UL, 255UL, 256UL, 65535UL, 65536UL}) {
    const std::string s(n, 'x');
    EXPECT_EQ(write_with(Writer::size_of_str(n), [&](Writer& w) { w.write_str(s); }),
              Pack().str(s).bytes())
        << n;
    const ByteVector b(n, 0x5a);
    EXPECT_EQ(write_with(Writer::size_of_bin(n), [&](Writer& w) { w.write_bin(b); }),
              Pack().bin(b).bytes())
        << n;
  }
  for (std::uint32_t n : {0U, 15U, 16U, 65535U, 65536U}) {
    EXPECT_EQ(write_with(Writer::size_of_container_header(n), [&](Writer& w) { w.write_map_header(n); }),
              Pack().map(n).bytes());
    EXPECT_EQ(
        write_with(Writer::size_of_container_header(n), [&](Writer& w) { w.write_array_header(n); }),
        Pack().array(n).bytes());
  }
}

TEST(MsgpackReader, AcceptsEveryEncodingOfAnUnsignedValue) {
  const std::vector<ByteVector> fives = {
      {0x05}, {0xcc, 0x05}, {0xcd, 0x00, 0x05}, {0xce, 0, 0, 0, 5}, {0xcf, 0, 0, 0, 0, 0, 0, 0, 5},
      {0xd0, 0x05}, {0xd1, 0x00, 0x05}, {0xd2, 0, 0, 0, 5}, {0xd3, 0, 0, 0, 0, 0, 0, 0, 5}};
  for (const ByteVector& bytes : fives) {
    Reader reader(bytes);
    std::uint64_t v = 0;
    EXPECT_EQ(reader.read_uint(v), WireError::none) << testing::hex(bytes);
    EXPECT_EQ(v, 5u);
    EXPECT_TRUE(reader.at_end());
  }
}

TEST(MsgpackReader, RejectsNegativeAndNonIntegers) {
  for (const ByteVector& bytes : {Pack().sint(-1).bytes(), Pack().sint(-200).bytes(),
                                  Pack().sint(INT64_MIN).bytes(), Pack().str("5").bytes(),
                                  Pack().real(5.5).bytes(), Pack().nil().bytes(),
                                  Pack().boolean(true).bytes(), Pack().array(0).bytes()}) {
    Reader reader(bytes);
    std::uint64_t v = 0;
    EXPECT_EQ(reader.read_uint(v), WireError::wrong_type) << testing::hex(bytes);
    EXPECT_EQ(reader.position(), 0u) << "a failed read consumes nothing";
  }
}

TEST(MsgpackReader, EveryTruncationIsNamed) {
  const std::vector<ByteVector> values = {
      Pack().uint(0xffffffffffULL).bytes(), Pack().str(std::string(40, 'a')).bytes(),
      Pack().str(std::string(300, 'a')).bytes(), Pack().bin(ByteVector(70000, 1)).bytes(),
      Pack().map(20).bytes(), Pack().array(70000).bytes()};
  for (const ByteVector& full : values) {
    for (std::size_t cut = 0; cut + 1 < full.size() && cut < 16; ++cut) {
      const ByteVector part(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(cut));
      Reader reader(part);
      EXPECT_EQ(reader.skip_value(), WireError::truncated) << testing::hex(part);
    }
  }
}

TEST(MsgpackReader, StringAndBinViewsPointIntoTheInput) {
  const ByteVector bytes = Pack().str("hello").bin({1, 2, 3}).bytes();
  Reader reader(bytes);
  std::string_view s;
  Bytes b;
  ASSERT_EQ(reader.read_str(s), WireError::none);
  ASSERT_EQ(reader.read_bin(b), WireError::none);
  EXPECT_EQ(s, "hello");
  EXPECT_EQ(reinterpret_cast<const std::uint8_t*>(s.data()), bytes.data() + 1);
  EXPECT_EQ(ByteVector(b.begin(), b.end()), (ByteVector{1, 2, 3}));
  EXPECT_EQ(b.data(), bytes.data() + 8);
  Reader wrong(bytes);
  EXPECT_EQ(wrong.read_bin(b), WireError::wrong_type);  // str is not bin
}

TEST(MsgpackReader, SkipsEveryTypeMsgpackCWrites) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> p(buffer);
  p.pack_array(12);
  p.pack_nil();
  p.pack_true();
  p.pack_int8(-3);
  p.pack_int64(-1'000'000'000'000);
  p.pack_uint64(1ULL << 60);
  p.pack_float(1.5f);
  p.pack_double(2.5);
  p.pack(std::string(300, 's'));
  p.pack_bin(3);
  p.pack_bin_body("abc", 3);
  p.pack_ext(5, 7);
  p.pack_ext_body("12345", 5);
  p.pack_ext(300, 1);
  p.pack_ext_body(std::string(300, 'e').data(), 300);
  p.pack_map(2);
  p.pack(std::string("k"));
  p.pack_array(1);
  p.pack_map(0);
  p.pack_uint8(1);
  buffer.write("\xd6\x09wxyz", 6);  // fixext 4: type 9, four data bytes
  p.pack_uint8(0x7f);  // sentinel after the array
  const auto* data = reinterpret_cast<const std::uint8_t*>(buffer.data());
  const ByteVector bytes(data, data + buffer.size());

  Reader reader(bytes);
  ASSERT_EQ(reader.skip_value(), WireError::none);
  std::uint64_t sentinel = 0;
  ASSERT_EQ(reader.read_uint(sentinel), WireError::none);
  EXPECT_EQ(sentinel, 0x7fu);
  EXPECT_TRUE(reader.at_end());
}

TEST(MsgpackReader, DeepNestingIsSkippedWithoutRecursion) {
  ByteVector deep(1'000'000, 0x91);  // a million one-element arrays, nested
  deep.push_back(0x00);
  Reader reader(deep);
  EXPECT_EQ(reader.skip_value(), WireError::none);
  EXPECT_TRUE(reader.at_end());
  deep.pop_back();
  Reader cut(deep);
  EXPECT_EQ(cut.skip_value(), WireError::truncated);
}

TEST(MsgpackReader, HugeDeclaredSizesFailFast) {
  for (const ByteVector& bytes : {ByteVector{0xdd, 0xff, 0xff, 0xff, 0xff, 0x00},
                                  ByteVector{0xdf, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00},
                                  ByteVector{0xdb, 0xff, 0xff, 0xff, 0xff, 'a'},
                                  ByteVector{0xc6, 0xff, 0xff, 0xff, 0xff, 0x01},
                                  ByteVector{0xc9, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02}}) {
    Reader skipper(bytes);
    EXPECT_EQ(skipper.skip_value(), WireError::truncated) << testing::hex(bytes);
    std::uint32_t count = 0;
    Reader header(bytes);
    const WireError e = bytes[0] == 0xdd ? header.read_array_header(count)
                      : bytes[0] == 0xdf ? header.read_map_header(count)
                                         : WireError::truncated;
    EXPECT_EQ(e, WireError::truncated);
  }
}

TEST(MsgpackReader, ReservedMarkerIsRejected) {
  const ByteVector bytes = {0xc1};
  Reader reader(bytes);
  EXPECT_EQ(reader.skip_value(), WireError::wrong_type);
}

}  // namespace
}  // namespace weft::wire
