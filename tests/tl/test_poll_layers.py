"""Polls across layers: before layer 179 a poll's question and answers were plain
strings, before 204 a quiz named its correct answer by option bytes; clients of those
layers see and send the same poll."""

import struct

from tl import layers, types


def _t(text):
    return types.TextWithEntities(text=text, entities=[])


def _poll():
    answers = [
        types.PollAnswer(text=_t("tea"), option=b"0"),
        types.PollAnswer(text=_t("coffee"), option=b"1"),
    ]
    return types.Poll(id=5, question=_t("Tea or coffee?"), answers=answers, hash=0, quiz=True)


def test_old_layers_see_the_question_and_answers_as_strings():
    media = types.MessageMediaPoll(poll=_poll(), results=types.PollResults(total_voters=2, results=[]))
    for layer in (158, 177):
        data = layers.encode(media, layer)
        assert struct.pack("<B", len("Tea or coffee?")) + b"Tea or coffee?" in data
        assert b"\x06coffee" in data
        back = layers.decode(data, layer)
        assert back.poll.question.text == "Tea or coffee?" and back.poll.question.entities == []
        assert [a.text.text for a in back.poll.answers] == ["tea", "coffee"]


def test_old_layers_create_quizzes():

    old = layers.tables(158).decl("inputMediaPoll")
    assert any(str(p.type) == "Vector<bytes>" for p in old.params if p.name == "correct_answers")
    # What a layer-158 client sends: the correct answer as its option bytes.
    wire = bytearray(struct.pack("<I", old.id))
    wire += struct.pack("<I", 1)  # flags: correct_answers
    wire += layers.encode(_poll(), 158)
    wire += struct.pack("<Ii", 0x1CB5C415, 1) + b"\x011\x00\x00"
    got = layers.decode(bytes(wire), 158)
    assert got.poll.question.text == "Tea or coffee?" and got.correct_answers == [b"1"]
