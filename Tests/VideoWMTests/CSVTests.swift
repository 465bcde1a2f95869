import Foundation
import Testing
@testable import VideoWM

func csv(_ text: String) throws -> CSVTable {
    try CSVTable.parse(Data(text.utf8), file: "students.csv")
}

func csvError(_ text: String) -> String? {
    do {
        _ = try csv(text)
        return nil
    } catch {
        #expect(error is CSVError, "\(error)")
        return "\(error)"
    }
}

@Suite("CSV reader")
struct CSVTests {
    @Test func plainRowsByHeader() throws {
        let table = try csv("email,name,id\nada@example.com,Ada,1001\ngrace@example.com,Grace,1002\n")
        #expect(table.columns == ["email", "name", "id"])
        #expect(table.rows.count == 2)
        #expect(table.rows[0].values == ["email": "ada@example.com", "name": "Ada", "id": "1001"])
        #expect(table.rows[1].number == 2 && table.rows[1].line == 3)
    }

    @Test("quoted fields keep commas, doubled quotes and line breaks")
    func quotedFields() throws {
        let table = try csv("name,note,id\n\"Hopper, Grace\",\"said \"\"hi\"\"\",1\n\"Two\nLines\",\"a\r\nb\",2\nlast,,3\n")
        #expect(table.rows.map { $0.values["name"] } == ["Hopper, Grace", "Two\nLines", "last"])
        #expect(table.rows.map { $0.values["note"] } == ["said \"hi\"", "a\r\nb", ""])
        // Line numbers count the lines inside quoted fields.
        #expect(table.rows.map(\.line) == [2, 3, 6])
    }

    @Test("a byte-order mark, CRLF, a lone CR and a missing final newline are all fine")
    func encodingsAndLineEnds() throws {
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        bytes += Array("email,name\r\nzoë@example.com,Zoë Müller\r\nb@x.org,Bo\rc@x.org,\"Ç\"".utf8)
        let table = try CSVTable.parse(Data(bytes), file: "s.csv")
        #expect(table.columns == ["email", "name"])
        #expect(table.rows.map { $0.values["name"] } == ["Zoë Müller", "Bo", "Ç"])
        #expect(table.rows.map(\.line) == [2, 3, 4])
    }

    @Test("blank lines are skipped, but a quoted empty value is a value")
    func blankLines() throws {
        let table = try csv("id\n\n1\n\n\"\"\n2\n\n")
        #expect(table.rows.map { $0.values["id"] } == ["1", "", "2"])
        #expect(table.rows.map(\.number) == [1, 2, 3])
    }

    @Test func trailingCommaIsAnEmptyField() throws {
        let table = try csv("a,b,c\n1,2,")
        #expect(table.rows[0].values == ["a": "1", "b": "2", "c": ""])
    }

    @Test("values are kept verbatim; header names lose surrounding spaces")
    func verbatimValues() throws {
        let table = try csv(" email , id\n  spaced  ,%d '\\ {x}\n")
        #expect(table.columns == ["email", "id"])
        #expect(table.rows[0].values == ["email": "  spaced  ", "id": "%d '\\ {x}"])
    }

    @Test("mistakes are reported with the line and, for records, the row")
    func errorsNameTheLine() {
        #expect(csvError("")?.contains("is empty") == true)
        #expect(csvError("a,b\n1,2\n3\n") == "students.csv: line 3 (row 2): 1 field(s), but the header names 2")
        #expect(csvError("a,b\n1,\"open\n2,3\n")?.hasPrefix("students.csv: line 2: a quoted field is never closed") == true)
        #expect(csvError("a,b\n1,\"x\"y\n")?.hasPrefix("students.csv: line 2: unexpected 'y' after a closing quote") == true)
        #expect(csvError("a,b\n1,x\"y\n")?.hasPrefix("students.csv: line 2: a quote inside an unquoted field") == true)
        #expect(csvError("a,a\n1,2\n")?.contains("'a' appears twice") == true)
        #expect(csvError("a,,b\n1,2,3\n")?.contains("column 2 of the header has no name") == true)
    }

    @Test("invalid UTF-8 is an error naming the line, not replacement characters")
    func invalidUTF8() {
        var bytes = Array("email,name\nada@example.com,Ada\nz@x.org,Zo".utf8)
        bytes.append(0xEB) // Latin-1 "ë"
        bytes += Array("\n".utf8)
        do {
            _ = try CSVTable.parse(Data(bytes), file: "latin1.csv")
            Issue.record("accepted invalid UTF-8")
        } catch let error as CSVError {
            #expect(error.message == "latin1.csv: line 3: not valid UTF-8 (save the file as UTF-8)")
            #expect(error.line == 3)
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func missingFileIsExit66() {
        #expect(throws: InputError.missing("/nonexistent/students.csv")) { try CSVTable.load(path: "/nonexistent/students.csv") }
    }
}
