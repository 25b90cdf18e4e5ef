import NIOCore
import PostgresNIO

/// A one-dimensional PostgreSQL array that may hold NULLs, sent in binary (postgres-nio encodes arrays of
/// non-optional values only). It lets one statement insert a feed's new episodes as parallel arrays through
/// `unnest`, so the statement has a fixed shape the server parses and plans once per connection.
struct NullableArray: PostgresDynamicTypeEncodable {
    private let count: Int
    private let hasNull: Bool
    private let elementType: PostgresDataType
    let psqlType: PostgresDataType
    var psqlFormat: PostgresFormat { .binary }
    /// The elements, already in PostgreSQL's binary form (nil: NULL).
    private let elements: [ByteBuffer?]

    private init(elements: [ByteBuffer?], elementType: PostgresDataType, arrayType: PostgresDataType) {
        self.elements = elements
        self.count = elements.count
        self.hasNull = elements.contains { $0 == nil }
        self.elementType = elementType
        self.psqlType = arrayType
    }

    static func text(_ values: [String?]) -> NullableArray {
        NullableArray(
            elements: values.map { value in value.map { ByteBuffer(string: $0) } }, elementType: .text,
            arrayType: .textArray)
    }

    static func int8(_ values: [Int64?]) -> NullableArray {
        NullableArray(
            elements: values.map { value in
                value.map {
                    var buffer = ByteBuffer()
                    buffer.writeInteger($0)
                    return buffer
                }
            }, elementType: .int8, arrayType: .int8Array)
    }

    static func float8(_ values: [Double?]) -> NullableArray {
        NullableArray(
            elements: values.map { value in
                value.map {
                    var buffer = ByteBuffer()
                    buffer.writeInteger($0.bitPattern)
                    return buffer
                }
            }, elementType: .float8, arrayType: .float8Array)
    }

    static func bool(_ values: [Bool?]) -> NullableArray {
        NullableArray(
            elements: values.map { value in
                value.map {
                    var buffer = ByteBuffer()
                    buffer.writeInteger(UInt8($0 ? 1 : 0))
                    return buffer
                }
            }, elementType: .bool, arrayType: .boolArray)
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        // Binary array: dimensions, has-null flag, element type, then the one dimension's length and lower bound.
        buffer.writeInteger(Int32(1))
        buffer.writeInteger(Int32(hasNull ? 1 : 0))
        buffer.writeInteger(elementType.rawValue)
        buffer.writeInteger(Int32(count))
        buffer.writeInteger(Int32(1))
        for element in elements {
            if var element {
                buffer.writeInteger(Int32(element.readableBytes))
                buffer.writeBuffer(&element)
            } else {
                buffer.writeInteger(Int32(-1))
            }
        }
    }
}
